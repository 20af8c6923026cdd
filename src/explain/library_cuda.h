#pragma once
// Which CUDA release a toolkit library's soname belongs to: up to CUDA 10.2
// the sonames carry the release ("libcudart.so.10.0", "libnvrtc.so.9.2"); from
// CUDA 11 on, the knowledge base's library_sonames table says which majors
// ship a soname ("libcublas.so.11" -> 11). Used to tell a program built for
// another CUDA from a library that is merely not on the loader's path. Pure.
#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "kb/knowledge_base.h"

namespace cudiag::explain {

struct SonameCuda {
  std::vector<long> majors;        // CUDA majors that ship the soname (from 11 on); empty before
  std::optional<Version> release;  // "10.0" for a soname that names its release (CUDA 10.2 and older)
};

// nullopt for driver libraries (libcuda, libnvidia-ml), cuDNN, TensorRT and names without a version.
std::optional<SonameCuda> cuda_of_soname(const kb::KnowledgeBase& kb, const std::string& soname);

// Whether CUDA `have` provides the soname: the same release for old sonames, one of the majors for
// newer ones.
bool provides(const SonameCuda& wanted, const Version& have);

// "CUDA 10.0", "CUDA 11.x", "CUDA 11.x or 12.x".
std::string describe(const SonameCuda& wanted);

}  // namespace cudiag::explain
