#include "kb/newest_cuda.h"

#include <algorithm>

namespace cudiag::kb {

const MinorVersionCompat* newest_mvc(const KnowledgeBase& kb) {
  const MinorVersionCompat* newest = nullptr;
  for (const auto& m : kb.mvc())
    if (!newest || m.cuda_major > newest->cuda_major) newest = &m;
  return newest;
}

long newest_cuda_major(const KnowledgeBase& kb) {
  long newest = 0;
  for (const auto& t : kb.toolkit_releases()) newest = std::max(newest, t.cuda.major());
  if (const auto* m = newest_mvc(kb)) newest = std::max(newest, m->cuda_major);
  return newest;
}

}  // namespace cudiag::kb
