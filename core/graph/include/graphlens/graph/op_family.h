#pragma once
// The family of an op kind, as every view and report groups and colours dispatches: one
// switch, so the GUI's legend, the HTML report's strips and the DOT export never disagree.
#include <string_view>

#include "graphlens/graph/op_kind.h"

namespace graphlens {

enum class OpFamily : uint8_t {
    matmul,
    attention,
    norm,
    elementwise,
    activation,
    rope,
    copy,
    other
};

OpFamily op_family(OpKind op);
/// "matmul", "attention", "norm", "element-wise", "activation", "rope", "copy", "other".
std::string_view op_family_name(OpFamily family);
/// Every family, in legend order.
inline constexpr OpFamily kOpFamilies[] = {
    OpFamily::matmul,     OpFamily::attention, OpFamily::norm, OpFamily::elementwise,
    OpFamily::activation, OpFamily::rope,      OpFamily::copy, OpFamily::other};

}  // namespace graphlens
