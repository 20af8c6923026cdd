#include "render/render.h"

namespace cudiag::render {
namespace {
const RegisterRenderer kJson{
    "json", [](const Json& report, const RenderOptions&) { return json_text(report) + "\n"; }};
}  // namespace
}  // namespace cudiag::render
