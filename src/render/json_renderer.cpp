#include "render/render.h"

namespace cudiag {
namespace {
const RegisterRenderer kJson{"json", [](const Json& report, const RenderOptions&) { return report.dump(2) + "\n"; }};
}  // namespace
}  // namespace cudiag
