// A last-dimension cumulative sum written as TensorRT-LLM writes its cumsum kernels
// (cpp/tensorrt_llm/kernels/cumsumLastDim.cu): template parameters of enum type, a user enum class
// chosen with `if constexpr (MODE == ScanMode::kInclusive)` and cub's `cub::BlockScanAlgorithm`.
// One block per row; the row fits in the block.
#include <cub/cub.cuh>

enum class ScanMode { kInclusive, kExclusive };

template <typename T, int THREADS_PER_BLOCK, ScanMode MODE, cub::BlockScanAlgorithm ALGORITHM>
__global__ void cumsum_last_dim_kernel(T const* __restrict__ input, T* __restrict__ output,
                                       int const input_length) {
  typedef cub::BlockScan<T, THREADS_PER_BLOCK, ALGORITHM> BlockScan;
  __shared__ typename BlockScan::TempStorage temp_storage;

  int const row = blockIdx.x;
  int const col = threadIdx.x;
  T thread_data = col < input_length ? input[row * input_length + col] : T(0);
  T result;
  if constexpr (MODE == ScanMode::kInclusive) {
    BlockScan(temp_storage).InclusiveSum(thread_data, result);
  } else {
    BlockScan(temp_storage).ExclusiveSum(thread_data, result);
  }
  if (col < input_length) {
    output[row * input_length + col] = result;
  }
}
