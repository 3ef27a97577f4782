// The GPU's `rcp.approx.ftz.f32` (the reciprocal behind TensorRT-LLM's reciprocal_approximate_ftz),
// modelled from a table captured on the GPU. docs/semantics.md section 4.6: on an H200 it differs
// from the correctly rounded reciprocal on 13.2% of normal inputs, always by +-1 ulp, and the
// difference depends only on the input's 23-bit significand. So a 2^23-entry table of 2-bit deltas
// (2 MiB) reproduces it exactly on a CPU; this file holds that table's format, loader and the
// emulation. The table is captured on a GPU by golden/capture/rcp_approx_capture.cu
// (`mxv_capture_rcp_approx OUT.bin`), which also proves the emulation equal to the hardware on all
// 2^32 inputs.
//
// The default table (used when no table is passed explicitly):
//   1. MXV_RCP_APPROX_TABLE=FILE: that file (a missing or bad file is an error, never skipped);
//   2. MXV_RCP_APPROX_TABLE=none: no default table (nvfp4_trtllm then says "table missing");
//   3. unset or empty: the committed capture golden/captures/rcp_approx_ftz_f32_sm90.bin (H200,
//      2026-11-29), installed as the data file rcp_approx_ftz_f32_sm90.bin and found as every data
//      file is (mxv/io/data_files.h: $MXV_DATA_DIR, else share/mxv beside or above the binary).
//      When no data directory holds it there is no default table and the "rcp.approx table
//      missing" error says how to get one and where it looked; a corrupted one throws.
//
// File format (little-endian), version 1:
//   offset  0: 8 bytes  magic "MXVRCPA1"
//   offset  8: u32      version = 1
//   offset 12: u32      entries = 2^23 (one per significand)
//   offset 16: u32      bits per entry = 2
//   offset 20: u32      reserved = 0
//   offset 24: u64      FNV-1a 64 hash of the payload
//   offset 32: 2^21 bytes payload: entry i in bits [2*(i%4), 2*(i%4)+1] of byte i/4;
//              0b00 -> delta 0, 0b01 -> +1 ulp, 0b11 -> -1 ulp, 0b10 invalid.
// Delta is applied to the bit pattern of the correctly rounded reciprocal of 1.significand.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mxv {

class RcpApproxTable {
 public:
  static constexpr std::uint32_t kEntries = 1u << 23;
  static constexpr std::size_t kHeaderBytes = 32;
  static constexpr std::size_t kPayloadBytes = kEntries / 4;

  /// From one delta per significand (each -1, 0 or +1; exactly kEntries of them). Throws
  /// std::invalid_argument naming the first bad entry.
  static RcpApproxTable from_deltas(std::span<const std::int8_t> deltas);
  /// Reads a table file through the io layer (mxv/io/input_file.h: a regular file or a pipe);
  /// throws std::invalid_argument "<source>: '<path>' <reason>", `source` naming where the path
  /// came from ("--rcp-table", "MXV_RCP_APPROX_TABLE"), for a missing, unreadable, directory or
  /// device path and for a bad table (truncated, bad magic/version/size, hash mismatch, invalid
  /// entry).
  static RcpApproxTable load(const std::string& path, std::string_view source = "rcp.approx table");
  /// Writes the table in the format above, all or nothing (io::OutputBatch: a fresh temporary
  /// beside `path`, renamed into place). Throws std::invalid_argument for a path that cannot be
  /// an output, std::runtime_error when writing fails.
  void save(const std::string& path) const;

  /// The delta (-1, 0, +1) for a 23-bit significand.
  int delta(std::uint32_t significand) const;
  /// Emulated rcp.approx.ftz.f32(x): subnormal inputs are flushed to signed zero (-> signed
  /// Inf), results below 2^-126 flush to signed zero, +-Inf -> +-0, NaN -> canonical NaN
  /// 0x7FFFFFFF (what MUFU.RCP returns). With the committed table this equals the H200 on all
  /// 2^32 inputs (the capture's own sweep, 2026-11-29: 0 mismatches).
  float rcp(float x) const;

  /// FNV-1a 64 of the payload (the value stored in the header).
  std::uint64_t payload_hash() const;

 private:
  std::vector<std::uint8_t> packed_;  // kPayloadBytes
};

/// The correctly rounded reciprocal with the same flush-to-zero rules as rcp(): the table with
/// every delta 0. Independent of any table (used to build and to check captured tables).
float rcp_ftz_correctly_rounded(float x);

/// The committed capture's name among the data files (mxv/io/data_files.h).
inline constexpr const char* kRcpApproxTableFileName = "rcp_approx_ftz_f32_sm90.bin";

/// The path of the committed capture in the first data directory holding it, or "" when none does.
std::string committed_rcp_approx_table_path();

/// The default table (rules 1-3 in the file comment), loaded once; nullptr when there is none.
/// Throws (as load, plus which rule named the file) when the file named is bad.
const RcpApproxTable* default_rcp_approx_table();

/// `table` if not null, else the default one; throws std::invalid_argument with
/// "rcp.approx table missing: capture it with ..." when neither exists. `who` names the caller.
const RcpApproxTable& require_rcp_approx_table(const RcpApproxTable* table, const std::string& who);

}  // namespace mxv
