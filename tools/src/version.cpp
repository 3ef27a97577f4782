// version_text (program.h). MXV_VERSION and MXV_GIT_REVISION are set by tools/CMakeLists.txt at
// configure time; a build from a tarball without git says so instead of inventing a revision.
#include <string>

#include "mxv/cli/program.h"

#ifndef MXV_VERSION
#define MXV_VERSION "unknown"
#endif
#ifndef MXV_GIT_REVISION
#define MXV_GIT_REVISION ""
#endif

namespace mxv::cli {

std::string version_text() {
  const std::string revision = MXV_GIT_REVISION;
  return std::string(MXV_VERSION) + " (git " + (revision.empty() ? std::string("revision unknown") : revision) + ")";
}

}  // namespace mxv::cli
