// Accuracy of `cudiag explain` on real messages from public threads that were
// collected apart from the signature work: heldout_cases.json (2026-12-03),
// heldout2_cases.json (2026-12-04, since used as the development set of that
// day's signatures, so in-sample now) and heldout3_cases.json (2026-12-04,
// collected while the signatures were written and scored only afterwards; its
// misses have since been read) and heldout4_cases.json (2026-12-04, second
// session: its "after_first_round" figure was out-of-sample) and heldout5_cases.json (2026-12-05, the
// development set of that day, sampled as failures are reported). Each file's "measured" block records
// the figures before and after. The figures are printed so CI shows them; each test fails only when the layer
// accuracy drops below that file's floor, the figure of the code as it was before the signatures built from
// or alongside it.
#include <gtest/gtest.h>

#include "accuracy_scoring.h"

namespace cudiag::explain {
namespace {

void score_file(const char* name, const char* label, double layer_floor, bool pasted = false,
                std::size_t at_least = 30) {
  const Json doc = scoring::load(name);
  ASSERT_GE(doc["cases"].size(), at_least);  // a set too small to measure anything fails
  for (const auto& c : doc["cases"]) {
    EXPECT_EQ(c["source"].get<std::string>().rfind("https://", 0), 0u);
    EXPECT_FALSE(c.value("expect_remedy", "").empty());
  }
  scoring::Tally layer;
  double both = scoring::score(doc["cases"], pasted, label, &layer);
  double layer_share = static_cast<double>(layer.right) / std::max(1, layer.total);
  std::cout << fmt::format("{}: right layer {}/{} ({:.1f} %), right layer and remedy {:.1f} %\n", label,
                           layer.right, layer.total, 100.0 * layer_share, 100.0 * both);
  EXPECT_GE(layer_share, layer_floor);
}

// Floors: the layer accuracy measured on main before the signatures of the
// round each set belongs to (the files' "measured" blocks).
TEST(ExplainHeldoutTest, FirstSetStaysAboveItsMeasuredFloor) {
  score_file("heldout_cases.json", "held-out", 30.0 / 48);
}

TEST(ExplainHeldoutTest, SecondSetStaysAboveItsMeasuredFloor) {
  score_file("heldout2_cases.json", "held-out #2 (development set)", 10.0 / 60);
}

TEST(ExplainHeldoutTest, ThirdSetStaysAboveItsMeasuredFloor) {
  score_file("heldout3_cases.json", "held-out #3", 9.0 / 50);
}

TEST(ExplainHeldoutTest, FourthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout4_cases.json", "held-out #4", 21.0 / 46);
}

// Set #5 (2026-12-05) samples failures as people report them, environment
// lines included, and is scored the way `cudiag explain --file ISSUE.txt`
// reads a pasted issue.
TEST(ExplainHeldoutTest, FifthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout5_cases.json", "held-out #5 (development set, pasted)", 23.0 / 61, true);
}

// Set #6 (2026-12-05), collected beside #5 and scored out-of-sample once
// after #5's round (18 % right layer and remedy), then read.
TEST(ExplainHeldoutTest, SixthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout6_cases.json", "held-out #6 (pasted)", 17.0 / 50, true);
}

// Set #7 (2026-12-05), the day's second development set (out-of-sample 22 % before it was read).
TEST(ExplainHeldoutTest, SeventhSetStaysAboveItsMeasuredFloor) {
  score_file("heldout7_cases.json", "held-out #7 (development set, pasted)", 15.0 / 45, true);
}

// Set #8 (2026-12-05), the session's last out-of-sample set: 21/39 before and after the session's work.
TEST(ExplainHeldoutTest, EighthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout8_cases.json", "held-out #8 (pasted)", 24.0 / 39, true);
}

// Set #9 (2026-12-05, second session), a development set: 7/33 right layer and remedy before it was read.
TEST(ExplainHeldoutTest, NinthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout9_cases.json", "held-out #9 (development set, pasted)", 16.0 / 33, true);
}

// Set #10 (2026-12-05, second session), out-of-sample: 15/30 before and after the session's work.
TEST(ExplainHeldoutTest, TenthSetStaysAboveItsMeasuredFloor) {
  score_file("heldout10_cases.json", "held-out #10 (pasted)", 17.0 / 30, true);
}

// Sets #11-#13 (2026-12-05, second session), out-of-sample: 19/82 right layer and remedy before the
// session's work, 23/82 after it. Smaller than the first sets: the search index is heavily mined.
TEST(ExplainHeldoutTest, EleventhToThirteenthSetsStayAboveTheirMeasuredFloors) {
  // Raised in the third session, after it read them (right layer 14/36, 19/24, 15/22).
  score_file("heldout11_cases.json", "held-out #11 (pasted)", 14.0 / 36, true, 20);
  score_file("heldout12_cases.json", "held-out #12 (pasted)", 19.0 / 24, true, 20);
  score_file("heldout13_cases.json", "held-out #13 (pasted)", 15.0 / 22, true, 20);
}

// The pasted sets from #14 on, sampled as failures are reported (each file's "measured" block has
// its history). Floors are right-layer counts at the end of the session that last worked on them.
struct PastedSet {
  int number;
  int floor_right;  // of `total` cases
  int total;
  bool development;  // read after its out-of-sample score
};

constexpr PastedSet kPastedSets[] = {
    // Third session (2026-12-05): #14, #18-#20 and #22 development sets; #15-#17, #21 and #23 kept
    // unseen. Out-of-sample, #15-#17 and #21-#23 gave 25/94 right layer and remedy with the
    // session-start binary (87e4ab6) and 27/94 with ab481fb.
    {14, 17, 22, true},
    {15, 7, 15, false},
    {16, 12, 25, false},
    {17, 7, 17, false},
    {18, 12, 16, true},
    {19, 6, 17, true},
    {20, 10, 17, true},
    {21, 7, 14, false},
    {22, 3, 13, true},
    {23, 2, 10, false},
    // Fourth session: #24-#35 scored once unseen, then read (out-of-sample 51/178 with the
    // session-start binary 2379aa1, 53/178 when first scored); #36-#38 kept unseen to its end (4/26
    // at its start and at its end). #15-#17, #21 and #23 were read in it.
    {24, 15, 24, true},
    {25, 17, 26, true},
    {26, 15, 23, true},
    {27, 16, 20, true},
    {28, 12, 15, true},
    {29, 6, 11, true},
    {30, 10, 13, true},
    {31, 5, 9, true},
    {32, 8, 12, true},
    {33, 5, 6, true},
    {34, 6, 8, true},
    {35, 8, 11, true},
    {36, 1, 3, false},
    {37, 3, 10, false},
    {38, 2, 13, false},
    // Fifth session (2026-12-06), each helper reporting only counts; floors are the right layer at
    // its end. Right layer and remedy: #39-#44 scored unseen at the start (13/45 with ce9307f) and
    // with the word guess (18/45), then read; #45-#50 kept unseen to its end (11/44 with ce9307f,
    // 14/44 when first scored, 14/44 at the end); the sixth session read them.
    {39, 3, 6, true},
    {40, 6, 10, true},
    {41, 5, 6, true},
    {42, 10, 14, true},
    {43, 1, 3, true},
    {44, 4, 6, true},
    {45, 1, 7, true},
    {46, 6, 14, true},
    {47, 1, 8, true},
    {48, 4, 6, true},
    {49, 2, 4, true},
    {50, 3, 5, true},
    // Sixth session (2026-12-06): 36 sets, 226 cases, each helper reporting only counts, every set
    // scored unseen with the session-start binary 4dc0d95 (65/226 right layer and remedy) and, in
    // batches, again unseen with later builds before it was read (#57-#80: 43/153 both times;
    // #69-#80: 19/69 both; #75-#86: 19/81 both), then read: no change of the session moved a set it
    // had not yet read. 98/226 at the end.
    {51, 7, 7, true},  // with set #52's single case
    {53, 7, 10, true},
    {54, 4, 5, true},
    {55, 2, 5, true},
    {56, 4, 6, true},
    // #57's onnxruntime 'CUDA_PATH is set but CUDA wasn't able to be loaded' case is labelled frameworks; the
    // family moved to cuda_runtime (2026-12-07: three later collectors labelled it so), a case the floor gave
    // up.
    {57, 1, 5, true},
    {58, 5, 7, true},
    {59, 3, 8, true},
    {60, 5, 10, true},
    {61, 4, 5, true},
    {62, 4, 8, true},
    {63, 3, 6, true},
    {64, 10, 10, true},
    {65, 4, 8, true},
    {66, 2, 3, true},
    {67, 3, 6, true},
    {68, 7, 7, true},
    // Session 8: Factor-Graph-Neural-Network#4 (torch 1.5.1+cu101 on an RTX 3080 Ti) is now answered
    // from its facts as binaries (frameworks.no_kernel_for_gpu, the maintainer's fix: a CUDA 11 build);
    // the set labels it frameworks, 77 other "no kernel image" cases of the corpora binaries.
    {69, 2, 3, true},
    {70, 1, 4, true},
    {71, 2, 7, true},
    {72, 3, 5, true},
    {73, 6, 10, true},
    {74, 3, 4, true},
    {75, 1, 3, true},
    {76, 1, 4, true},
    {77, 1, 3, true},
    {78, 2, 9, true},
    {79, 3, 11, true},
    {80, 1, 4, true},
    {81, 3, 9, true},
    {82, 4, 8, true},
    {83, 8, 11, true},
    {84, 3, 7, true},
    {85, 2, 3, true},
    {86, 1, 5, true},
    // Seventh session (2026-12-06): #87 (with #88's two cases) to #94, 37 cases scored unseen with the
    // session-start binary 22407e7 (23/37 right layer and remedy) and with the similar-reports build
    // (23/37), then read.
    {87, 3, 4, true},
    {89, 2, 4, true},
    {90, 4, 5, true},
    {91, 4, 4, true},
    {92, 7, 8, true},
    {93, 3, 5, true},
    // 6/7 until the fourteenth session: verifiers#208 was answered "host" by a finding that
    // CUDA_VISIBLE_DEVICES=1,2,3 hides every GPU, counting "4 L4 gpus" as one GPU; a GPU named in prose
    // no longer counts as the machine's list, and its right answer (NCCL_P2P_DISABLE) is not found.
    {94, 5, 7, true},
    // Eighth session: #95-#98, 24 cases scored unseen with the session-start binary d68ca4a (16/24 right
    // layer and remedy, 21/24 right layer), then read (18/24 and 23/24).
    {95, 6, 6, true},
    {96, 3, 4, true},
    {97, 6, 6, true},
    {98, 8, 8, true},
    // Then #99-#102, 30 cases scored unseen with 5706310 (15/30 right layer and remedy, 19/30 right layer),
    // then read (22/30 and 23/30).
    {99, 4, 5, true},
    {100, 5, 6, true},
    {101, 5, 8, true},
    {102, 9, 11, true},
    // And #103-#106, 25 cases scored unseen with ea41e39 (12/25 right layer and remedy, 16/25 right layer),
    // then read (16/25 and 18/25).
    {103, 3, 5, true},
    {104, 4, 6, true},
    {105, 6, 7, true},
    {106, 5, 7, true},
    // Last #107-#110, 34 cases scored unseen with 8682982 (14/34 right layer and remedy, 19/34 right layer),
    // then read (19/34 and 22/34).
    {107, 6, 8, true},
    {108, 8, 9, true},
    {109, 4, 8, true},
    {110, 4, 9, true},
    // Ninth session: #111-#118 (new themes: native Windows, cloud VMs and notebooks, NCCL, conda, video,
    // Triton, Kubernetes, non-Python bindings), 43 cases scored unseen with the session-start binary 1f40cb7
    // (18/43 right layer and remedy, 25/43 right layer), then read (33/43 and 35/43).
    {111, 2, 3, true},
    {112, 4, 6, true},
    {113, 4, 4, true},
    {114, 3, 6, true},
    {115, 7, 9, true},
    {116, 5, 5, true},
    {117, 4, 4, true},
    {118, 6, 6, true},
    // Then #119-#122 (NVML tools, laptops, speech, virtual machines), 19 cases scored unseen with 390c016
    // (11/19 right layer and remedy, 12/19 right layer), then read (18/19 and 18/19).
    {119, 3, 3, true},
    {120, 3, 4, true},
    {121, 8, 8, true},
    {122, 4, 4, true},
    // Then #123-#126 (inference servers, DeepStream, older frameworks, CI builds), 23 cases scored unseen
    // with
    // 5de3b93 (7/23 right layer and remedy, 12/23 right layer), then read (18/23 and 19/23).
    {123, 4, 5, true},
    {124, 5, 6, true},
    {125, 2, 4, true},
    {126, 8, 8, true},
    // Then #127-#130 (several toolkits, distributions' drivers, HPC modules, hardware errors), 21 cases
    // scored
    // unseen with bcfe515 (10/21 right layer and remedy, 11/21 right layer), then read (17/21 and 17/21).
    {127, 5, 6, true},
    {128, 4, 6, true},
    {129, 3, 4, true},
    {130, 5, 5, true},
    // Then #131-#134 (cuBLAS/cuDNN statuses, GPU memory, creative applications, ARM servers), 30 cases scored
    // unseen with 66d8ea2 (3/30 right layer and remedy, 6/30 right layer), then read (11/30 and 13/30).
    {131, 3, 10, true},
    {132, 6, 9, true},
    {133, 3, 8, true},
    {134, 1, 3, true},
    // Then #135-#138 (launchers, Python environments, headless rendering, robotics simulators), 28 cases
    // scored
    // unseen with 3ae2df0 (10/28 right layer and remedy, 13/28 right layer), then read (22/28 and 23/28).
    {135, 8, 9, true},
    {136, 5, 6, true},
    {137, 6, 7, true},
    {138, 4, 6, true},
    // Last #139-#142 (nvidia-smi oddities, the CUDA samples, installers, GPUDirect), 23 cases scored unseen
    // with a37c7c7 (5/23 right layer and remedy, 15/23 right layer), then read (18/23 and 20/23).
    {140, 10, 11, true},  // with #139's single case
    {141, 5, 6, true},
    {142, 5, 6, true},
    // Tenth session (2026-12-07): #143-#177, 213 cases in 7 rounds of new themes, each scored unseen
    // with def275c (92/213 right layer and remedy, 128/213 right layer), then read (164/213 and 164/213
    // after, the reported-failure index holding the sets' own threads).
    // local LLM runtimes, image-generation UIs, RAPIDS/Numba/CuPy, Podman/Apptainer/CDI, prebuilt CUDA
    // extensions
    {143, 5, 6, true},
    {144, 3, 4, true},
    {145, 1, 3, true},
    {146, 5, 5, true},
    {147, 8, 8, true},
    // other frameworks, hashcat and MD codes, Jetson, vGPU/MIG/MPS, Ray/Horovod/Spark
    {148, 8, 9, true},
    {149, 2, 5, true},
    {150, 6, 6, true},
    {151, 6, 6, true},
    {152, 2, 3, true},
    // OpenCV/dlib, profilers and CUPTI, OpenCL, JAX/XLA, TensorFlow on Linux
    {153, 5, 7, true},
    {154, 6, 9, true},
    {155, 6, 8, true},
    {156, 5, 7, true},
    {157, 7, 8, true},
    // CMake CUDA builds, TensorRT, NVHPC/OpenACC, Docker Desktop/WSL 2, torch JIT extensions
    {158, 8, 8, true},
    {159, 5, 7, true},
    {160, 3, 5, true},
    {161, 4, 4, true},
    {162, 7, 8, true},
    // consumer AI apps, mining software, DL compilers, scientific packages, life sciences
    {163, 1, 6, true},
    {164, 8, 10, true},
    {165, 3, 6, true},
    {166, 7, 8, true},
    {167, 4, 6, true},
    // package managers, rented cloud GPUs, old GPUs, autonomy stacks, MATLAB/Julia/R
    {168, 4, 5, true},
    {169, 4, 4, true},
    {170, 2, 3, true},
    {171, 6, 6, true},
    {172, 6, 7, true},
    // object detection, NVIDIA training libraries, bio-imaging, JavaScript bindings, homelab/NAS
    {173, 5, 5, true},
    {174, 5, 7, true},
    {175, 4, 5, true},
    {176, 2, 3, true},
    {177, 1, 6, true},
    // Eleventh session (2026-12-07): #178-#222, 306 cases in 9 rounds of new themes, each scored unseen
    // with aad62c6 (121/306 right layer and remedy, 168/306 right layer), then read (226/306 and 227/306
    // after, a case's own thread in the reported-failure index not counted).
    // LLM fine-tuning, native Windows builds, MPI/NCCL/GPUDirect, 3D/video generation, LLM serving
    {178, 6, 6, true},
    {179, 7, 9, true},
    {180, 5, 6, true},
    {181, 3, 7, true},
    {182, 7, 7, true},
    // OptiX/NVENC tools, Kubernetes plumbing, speech/audio ML, hosted notebooks, non-Python bindings
    {183, 4, 6, true},
    {184, 6, 6, true},
    {185, 9, 10, true},
    {186, 4, 6, true},
    {187, 4, 6, true},
    // headless EGL/Vulkan, VM passthrough and vGPU, graph learning, NVIDIA's test tools, tabular GPU ML
    {188, 5, 7, true},
    {189, 4, 6, true},
    {190, 5, 7, true},
    {191, 7, 8, true},
    {192, 4, 6, true},
    // conda CUDA packages, distro driver packaging, ONNX Runtime GPU, hybrid laptops, IDE/notebook envs
    {193, 6, 6, true},
    {194, 8, 9, true},
    {195, 5, 7, true},
    {196, 5, 6, true},
    {197, 5, 6, true},
    // Triton Inference Server, video analytics on dGPUs, GPU DSLs, medical imaging, quantum simulators
    {198, 5, 6, true},
    {199, 4, 6, true},
    {200, 3, 6, true},
    {201, 2, 4, true},
    {202, 4, 6, true},
    // crypto provers/miners, GPUDirect Storage/nvCOMP/NPP, recsys libraries, large-scale training, robot sims
    {203, 7, 7, true},
    {204, 4, 6, true},
    {205, 3, 6, true},
    {206, 6, 6, true},
    {207, 5, 6, true},
    // NVIDIA Python bindings, NIM/NGC containers, no usable NVIDIA GPU, engineering solvers, Windows DLLs
    {208, 5, 8, true},
    {209, 5, 6, true},
    {210, 7, 9, true},
    {211, 6, 7, true},
    {212, 8, 10, true},
    // Compose/self-hosted GPU settings, diffusion training tools, RL libraries, GPU monitoring, Python
    // versions/platforms
    {213, 5, 6, true},
    {214, 6, 8, true},
    {215, 2, 6, true},
    {216, 4, 6, true},
    {217, 6, 11, true},
    // OCR/document AI, pose estimation, face-swap apps, upscalers/interpolators, point-cloud libraries
    {218, 4, 6, true},
    {219, 4, 6, true},
    {220, 4, 6, true},
    {221, 2, 6, true},
    {222, 6, 9, true},
    // Twelfth session (2026-12-07): #223-#260, rounds of new themes scored unseen with 0177380 and
    // then read; floors are the right-layer counts after reading.
    {223, 6, 6, true},
    {224, 2, 6, true},
    {225, 5, 6, true},
    {227, 5, 7, true},
    {228, 4, 6, true},
    {229, 10, 10, true},
    {230, 5, 8, true},
    {231, 9, 10, true},
    {232, 10, 10, true},
    {233, 4, 8, true},
    {234, 7, 11, true},
    {236, 2, 7, true},
    {237, 4, 5, true},
    {238, 3, 6, true},
    {239, 7, 7, true},
    {241, 7, 11, true},
    {242, 6, 7, true},
    {243, 2, 7, true},
    {244, 6, 8, true},
    {245, 8, 8, true},
    {246, 9, 10, true},
    {247, 4, 8, true},
    {248, 4, 7, true},
    {249, 3, 6, true},
    {250, 5, 7, true},
    {251, 6, 7, true},
    {252, 5, 5, true},
    {253, 3, 8, true},
    {254, 3, 8, true},
    {255, 4, 8, true},
    {256, 7, 8, true},
    {257, 2, 8, true},
    {260, 1, 4, true},
    // Thirteenth session (2026-12-07): #261-#290, six rounds of message-family themes scored unseen
    // with 76a9f71 and then read; floors are the right-layer counts after reading.
    {261, 3, 5, true},
    {262, 3, 4, true},
    {263, 6, 9, true},
    {264, 4, 5, true},
    {265, 2, 5, true},
    {266, 3, 3, true},
    {267, 7, 10, true},
    {269, 5, 6, true},
    {270, 3, 6, true},
    {271, 8, 8, true},
    {272, 9, 9, true},
    {273, 7, 8, true},
    {274, 10, 10, true},
    {276, 7, 8, true},
    {277, 10, 11, true},
    {278, 9, 10, true},
    {279, 3, 5, true},
    {280, 3, 8, true},
    {281, 6, 6, true},
    {282, 3, 4, true},
    {283, 4, 7, true},
    {285, 4, 9, true},
    {286, 1, 3, true},
    {287, 4, 8, true},
    {288, 4, 5, true},
    {289, 2, 4, true},
    {290, 5, 5, true},
    // Fourteenth session (2026-12-07): #291-#315, five rounds of long-tail themes scored unseen with
    // a263620 and then read; floors are the right-layer counts after reading.
    {291, 3, 3, true},
    {292, 3, 3, true},
    {293, 4, 4, true},
    {295, 4, 6, true},
    {296, 9, 10, true},
    {298, 1, 3, true},
    {300, 2, 6, true},
    {301, 10, 10, true},
    {303, 5, 9, true},
    {304, 3, 4, true},
    {305, 9, 11, true},
    {306, 2, 5, true},
    {307, 8, 9, true},
    {308, 6, 11, true},
    {309, 1, 3, true},
    {310, 7, 9, true},
    {311, 7, 10, true},
    {312, 7, 7, true},
    {313, 5, 8, true},
    {314, 2, 3, true},
    {315, 5, 6, true},
    // Fifteenth session (2026-12-07): #317-#325 (#316, #321 and #323 in a neighbour's file), two rounds of
    // long-tail themes scored
    // unseen with 20ce567 and then read; floors are the right-layer counts after reading.
    {317, 6, 9, true},
    {318, 3, 5, true},
    {319, 4, 5, true},
    {320, 3, 4, true},
    {322, 5, 9, true},
    {324, 6, 12, true},
    {325, 3, 6, true},
};

// The sets #first to #last of kPastedSets. The corpus is split in three tests of about 700 cases each:
// under AddressSanitizer on a loaded CI machine one test of all of them ran past ctest's 120 s.
void score_pasted_sets(int first, int last) {
  int scored = 0;
  for (const auto& s : kPastedSets) {
    if (s.number < first || s.number > last) continue;
    auto file = fmt::format("heldout{}_cases.json", s.number);
    auto label = fmt::format("held-out #{} ({}pasted)", s.number, s.development ? "development set, " : "");
    score_file(file.c_str(), label.c_str(), static_cast<double>(s.floor_right) / s.total, true, 3);
    ++scored;
  }
  EXPECT_GT(scored, 0) << "no set between #" << first << " and #" << last;
}

TEST(ExplainHeldoutTest, PastedSetsFromTheFourteenthStayAboveTheirMeasuredFloors) {
  score_pasted_sets(14, 99);
}

TEST(ExplainHeldoutTest, PastedSetsFromTheHundredthStayAboveTheirMeasuredFloors) {
  score_pasted_sets(100, 199);
}

TEST(ExplainHeldoutTest, PastedSetsFromTheTwoHundredthStayAboveTheirMeasuredFloors) {
  score_pasted_sets(200, 1000000);
}

}  // namespace
}  // namespace cudiag::explain
