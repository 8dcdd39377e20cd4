// Runs a GEMM kernel on fresh random data (outputs poisoned first) and checks
// it against the double-precision host reference: what `kdecl run`, the
// example and the GPU test suite share.
//
// A check is planned before anything is allocated (plan_check): the plan says
// how much host and device memory the run takes, and whether the reference is
// computed for every row of C or for a sample of rows. Every row is checked
// when that fits in memory and takes at most a few seconds; otherwise a sample
// of rows (the first, the last, and rows drawn at random) is checked, and every
// element of C is still scanned for NaN, so an element the kernel never wrote
// (it holds the 0xFF poison, a NaN in every floating dtype) still fails.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/gemm/gemm_dispatcher.hpp"

namespace kdecl {

enum class check_mode { automatic, full, sampled };

// What a check of one problem allocates and computes.
struct gemm_check_plan {
  bool sampled = false;
  std::vector<std::int64_t> rows;   // the rows checked (flat b*m + i, ascending); empty: every row
  std::int64_t total_rows = 0;      // batch * m
  bool b_in_double = false;         // the reference converts one batch of B to double (fast path)
  double reference_flops = 0;       // multiply-adds x 2 the reference performs
  std::size_t host_bytes = 0;       // peak host memory: inputs, C before the run, output copy, reference scratch
  std::size_t device_bytes = 0;     // device memory: operands and workspace (0 on the host backend: in host_bytes)
  std::vector<std::pair<std::string, std::size_t>> host_parts, device_parts;  // what the bytes are for
  std::string why;                  // one sentence: why every row, or why a sample

  std::int64_t rows_checked() const { return sampled ? std::int64_t(rows.size()) : total_rows; }
};

// Plans the check of `problem` (validated) on `dev` for a kernel that takes
// `workspace_bytes`. `host_available` is what the host can spare (memory_available());
// the plan never refuses: the caller compares host_bytes and device_bytes with what is there.
// Automatic mode checks every row when the reference needs at most ~2^33 multiply-adds
// per hardware thread and B in double fits; `full` and `sampled` force the choice.
gemm_check_plan plan_check(const gemm_problem& problem, const device& dev, std::size_t workspace_bytes, float beta,
                           check_mode mode, std::size_t host_available, std::uint64_t seed = 1);

struct gemm_check {
  std::string kernel;
  double error = 0.0;      // relative Frobenius error vs the reference; NaN if the output holds a NaN
  double tolerance = 0.0;
  double milliseconds = 0.0;  // one timed run after a warm-up
  // Bytes of C's buffer outside the matrix (padding past each row, gaps between
  // batches, the bytes before an offset pointer) the kernel changed; must be 0.
  std::int64_t outside_writes = 0;
  bool passed = false;             // error within tolerance and nothing written outside C
  bool sampled = false;            // the reference covered a sample of rows (every element was scanned for NaN)
  std::int64_t rows_checked = 0;   // rows of C compared with the reference
  std::int64_t rows_total = 0;     // batch * m
};

// How run_and_check lays out its buffers.
struct gemm_check_options {
  // Element offsets of the A, B, C and D pointers from their allocations (which are
  // 256-byte aligned): misaligned pointers the way a slice of a larger tensor gives them.
  std::int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;
};

// Runs `kernel` (or, when empty, the dispatcher's choice) on fresh random inputs
// and checks it as `plan` says (plan_check() of the same problem, device and beta).
// Throws std::runtime_error with the dispatcher's explanation when nothing can run it.
gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const gemm_check_plan& plan, const std::string& kernel = "", std::uint64_t seed = 1,
                         const gemm_check_options& options = {});

// The same with an automatic plan made for the host memory available now
// (the offsets' few bytes are not in the plan).
gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const std::string& kernel = "", std::uint64_t seed = 1);
gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const std::string& kernel, std::uint64_t seed, const gemm_check_options& options);

}  // namespace kdecl
