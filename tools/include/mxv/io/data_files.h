// Where mxv finds its data files (the rcp.approx capture, the committed golden set): never through
// a path compiled into the binary, so an installed tree can be moved or archived (docs/packages.md,
// "Data files"). A data file is named relative to a data directory ("golden/quantize.h5"). The
// data directories, in order:
//   1. $MXV_DATA_DIR when set and not empty: that directory only (nothing else is searched, so an
//      override never falls back silently to another copy);
//   2. otherwise `share/mxv` in the directory of the binary that holds this code (the program, or
//      the shared library it was linked into) or in the nearest ancestor of it that has one:
//      <prefix>/bin/mxv finds <prefix>/share/mxv, a build tree's programs find
//      build/<preset>/share/mxv (links into the checkout, made when CMake configures), the
//      Python extension finds mxv/share/mxv inside its package.
// A program of another project linking the static libraries has neither: it sets MXV_DATA_DIR
// (the CMake package defines the variable MXV_DATA_DIR for that).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::io {

/// The directories searched, in the order above: [$MXV_DATA_DIR] alone, or every existing
/// `share/mxv` from the binary's directory upwards (possibly none).
std::vector<std::filesystem::path> data_dirs();

/// The first data directory holding `name` (a file or a directory) joined with `name`, or an
/// empty path when none holds it.
std::filesystem::path find_data_file(std::string_view name);

/// For an error message: where `name` was looked for ("$MXV_DATA_DIR=/x", or the share/mxv
/// directories searched from the binary '/p/bin/mxv').
std::string describe_data_search(std::string_view name);

}  // namespace mxv::io
