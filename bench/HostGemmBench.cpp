//===- HostGemmBench.cpp - Host GEMM against naive and OpenBLAS -*- C++ -*-===//
//
// Times, in one run and on one thread, C = A · B at M = N = K (1024 by
// default) with the shipped GEMM compiled for the host (f32 and bf16
// storage), a naive triple loop (f32) and OpenBLAS sgemm (f32). Prints
// GFLOP/s and the ratio to OpenBLAS.
//
//   tessera-bench-hostgemm F32.bundle BF16.bundle [size] [runs]
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/tessera_runtime.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

extern "C" void openblas_set_num_threads(int);

static double medianSeconds(int runs, const std::function<void()> &body) {
  body(); // warm-up
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

static uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

static tessera_view matrix(void *data, int64_t rows, int64_t cols) {
  tessera_view view{};
  view.data = data;
  view.rank = 2;
  view.sizes[0] = rows;
  view.sizes[1] = cols;
  view.strides[0] = cols;
  view.strides[1] = 1;
  return view;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s F32.bundle BF16.bundle [size] [runs]\n",
                 argv[0]);
    return 2;
  }
  int64_t n = argc > 3 ? std::atoll(argv[3]) : 1024;
  int runs = argc > 4 ? std::atoi(argv[4]) : 5;
  double flops = 2.0 * n * n * n;

  tessera_device *device;
  tessera_module *f32Module, *bf16Module;
  tessera_kernel *f32Kernel, *bf16Kernel;
  if (tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device) ||
      tesseraHostSetThreads(device, 1) ||
      tesseraModuleLoadFile(device, argv[1], &f32Module) ||
      tesseraModuleLoadFile(device, argv[2], &bf16Module) ||
      tesseraModuleGetKernel(f32Module, "gemm_f32", &f32Kernel) ||
      tesseraModuleGetKernel(bf16Module, "gemm_bf16", &bf16Kernel)) {
    std::fprintf(stderr, "error: %s\n", tesseraGetLastError());
    return 1;
  }
  openblas_set_num_threads(1);

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (float &x : a)
    x = dist(rng);
  for (float &x : b)
    x = dist(rng);
  std::vector<uint16_t> a16(n * n), b16(n * n), c16(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a16[i] = toBF16(a[i]);
    b16[i] = toBF16(b[i]);
  }
  tessera_grid grid{(n + 127) / 128, (n + 127) / 128, 1};

  tessera_view va = matrix(a.data(), n, n), vb = matrix(b.data(), n, n),
               vc = matrix(c.data(), n, n);
  void *f32Args[] = {&va, &vb, &vc};
  double tesseraF32 = medianSeconds(
      runs, [&] { tesseraLaunch(f32Kernel, grid, f32Args, nullptr); });
  tessera_view va16 = matrix(a16.data(), n, n), vb16 = matrix(b16.data(), n, n),
               vc16 = matrix(c16.data(), n, n);
  void *bf16Args[] = {&va16, &vb16, &vc16};
  double tesseraBF16 = medianSeconds(
      runs, [&] { tesseraLaunch(bf16Kernel, grid, bf16Args, nullptr); });
  double openblas = medianSeconds(runs, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                a.data(), n, b.data(), n, 0.0f, c.data(), n);
  });
  double naive = medianSeconds(1, [&] {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t k = 0; k < n; ++k)
          sum += a[i * n + k] * b[k * n + j];
        c[i * n + j] = sum;
      }
  });

  std::printf("host GEMM %lldx%lldx%lld, 1 thread, median of %d runs\n",
              static_cast<long long>(n), static_cast<long long>(n),
              static_cast<long long>(n), runs);
  std::printf("%-28s %10s %12s\n", "implementation", "GFLOP/s", "vs OpenBLAS");
  auto row = [&](const char *name, double seconds) {
    std::printf("%-28s %10.2f %11.2fx\n", name, flops / seconds / 1e9,
                openblas / seconds);
  };
  row("OpenBLAS sgemm (f32)", openblas);
  row("tessera gemm_f32", tesseraF32);
  row("tessera gemm_bf16", tesseraBF16);
  row("naive triple loop (f32)", naive);
  tesseraModuleUnload(f32Module);
  tesseraModuleUnload(bf16Module);
  tesseraDeviceClose(device);
  return 0;
}
