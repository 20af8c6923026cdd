#include "inspect/driver_ptx.h"

#include <array>

namespace cudiag::inspect {

namespace {
struct Row {
  long branch;
  long cuda;  // CUDA's integer encoding, 1000*major + 10*minor
  PtxIsa isa;
};
// Branch = the driver's first version component; nvidia-compat.md sections 3 and 5.
constexpr std::array<Row, 28> kRows{{
    {384, 9000, {6, 0}},  {390, 9010, {6, 1}},  {396, 9020, {6, 2}},  {410, 10000, {6, 3}},
    {418, 10010, {6, 4}}, {440, 10020, {6, 5}}, {450, 11000, {7, 0}}, {455, 11010, {7, 1}},
    {460, 11020, {7, 2}}, {465, 11030, {7, 3}}, {470, 11040, {7, 4}}, {495, 11050, {7, 5}},
    {510, 11060, {7, 6}}, {515, 11070, {7, 7}}, {520, 11080, {7, 8}}, {525, 12000, {8, 0}},
    {530, 12010, {8, 1}}, {535, 12020, {8, 2}}, {545, 12030, {8, 3}}, {550, 12040, {8, 4}},
    {555, 12050, {8, 5}}, {560, 12060, {8, 5}}, {565, 12070, {8, 6}}, {570, 12080, {8, 7}},
    {575, 12090, {8, 8}}, {580, 13000, {9, 0}}, {590, 13010, {9, 1}}, {595, 13020, {9, 2}},
}};
}  // namespace

std::optional<DriverPtxSupport> driver_ptx_support(const Version& driver) {
  long branch = driver.major();
  const Row* match = nullptr;
  for (const auto& row : kRows)
    if (row.branch <= branch) match = &row;
  if (!match) return std::nullopt;
  DriverPtxSupport s{Version::from_cuda_int(match->cuda), match->isa, branch > kRows.back().branch};
  return s;
}

}  // namespace cudiag::inspect
