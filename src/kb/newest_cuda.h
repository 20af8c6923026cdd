#pragma once
// The newest CUDA the knowledge base knows. Several answers turn on it (an architecture dropped by the
// newest major, the driver branch current images need, whether a driver's CUDA is the newest), and it
// moves with each NVIDIA release: one definition, so a new major in the tables moves them all.
#include "kb/knowledge_base.h"

namespace cudiag::kb {

// The minor-version-compatibility row of the newest CUDA major; nullptr when the table is empty.
const MinorVersionCompat* newest_mvc(const KnowledgeBase& kb);

// The newest CUDA major of the toolkit releases and the MVC rows; 0 when both are empty.
long newest_cuda_major(const KnowledgeBase& kb);

}  // namespace cudiag::kb
