// One bind function per concept of mxv._core (module.cpp calls them in order).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mxv/reference/quantize.h"

namespace mxv::python {

namespace nb = nanobind;

/// The rcp.approx table given to set_rcp_approx_table; null until then: the C++ default rules
/// (rcp_approx.h), which find the table the wheel ships in mxv/share/mxv (data_files.h).
const RcpApproxTable* bundled_rcp_table();

/// The quantizer's options from the module's arguments, with the bundled rcp.approx table.
QuantizeOptions quantize_options(const std::string& scale_layout, const std::vector<std::int64_t>& group_counts,
                                 bool scale_per_group, std::optional<float> tensor_amax);

void bind_formats(nanobind::module_& m);   // formats.cpp: encode / decode
void bind_recipe(nanobind::module_& m);    // recipe.cpp: Recipe
void bind_quantize(nanobind::module_& m);  // quantize.cpp: quantize, dequantize, swiglu, layouts
void bind_check(nanobind::module_& m);     // check.cpp: Report, compare, check_quantize

}  // namespace mxv::python
