// Seeded bug: rotary_embedding with the token offset computed as a 32-bit unsigned product
// token * num_heads * head_size, as KV-cache and rotary kernels of serving code once did. It wraps
// modulo 2^32 once num_tokens * num_heads * head_size exceeds 2^32 (a batch of 262144 tokens of
// 64 heads of 256 features), and the kernel then reads and writes the rows of other tokens. The task's
// small instances are correct; only the parametric overflow proof sees it.
//
// Rotary position embedding, GPT-NeoX style ("rotate half"), for the query of every token:
// the first rot_dim features of each head are split into halves x1 = q[:rot_dim/2] and
// x2 = q[rot_dim/2:rot_dim] and rotated by the angle of the token's position,
//   out[:rot_dim/2] = x1 * cos - x2 * sin,   out[rot_dim/2:rot_dim] = x2 * cos + x1 * sin,
// and the remaining head_size - rot_dim features pass through. cos_sin_cache holds, per position,
// rot_dim/2 cosines followed by rot_dim/2 sines. One block per token.
#include <cstddef>
#include <cstdint>

template <typename scalar_t>
__device__ __forceinline__ void rotate_pair(const scalar_t* __restrict__ src, scalar_t* __restrict__ dst,
                                            const scalar_t* __restrict__ cos_ptr,
                                            const scalar_t* __restrict__ sin_ptr, int rot_offset,
                                            int embed_dim) {
  const int x_index = rot_offset;
  const int y_index = embed_dim + rot_offset;
  const scalar_t cos_v = cos_ptr[rot_offset];
  const scalar_t sin_v = sin_ptr[rot_offset];
  const scalar_t x = src[x_index];
  const scalar_t y = src[y_index];
  dst[x_index] = x * cos_v - y * sin_v;
  dst[y_index] = y * cos_v + x * sin_v;
}

template <typename scalar_t>
__global__ void rotary_embedding_neox(
    const int64_t* __restrict__ positions,       // [num_tokens]
    const scalar_t* __restrict__ query,          // [num_tokens, num_heads, head_size]
    const scalar_t* __restrict__ cos_sin_cache,  // [max_position, rot_dim]
    scalar_t* __restrict__ out,                  // like query
    const int num_heads, const int head_size, const int rot_dim) {
  const int token = blockIdx.x;
  const int64_t pos = positions[token];
  const int embed_dim = rot_dim / 2;
  const scalar_t* cos_ptr = cos_sin_cache + pos * rot_dim;
  const scalar_t* sin_ptr = cos_ptr + embed_dim;
  // BUG: unsigned (32-bit) offsets; the fix is the size_t arithmetic of rotary_embedding.
  const unsigned token_offset = blockIdx.x * num_heads * head_size;

  for (int i = threadIdx.x; i < num_heads * embed_dim; i += blockDim.x) {
    const int head = i / embed_dim;
    const unsigned head_offset = token_offset + head * head_size;
    rotate_pair(query + head_offset, out + head_offset, cos_ptr, sin_ptr, i % embed_dim, embed_dim);
  }

  const int pass_dim = head_size - rot_dim;
  for (int i = threadIdx.x; i < num_heads * pass_dim; i += blockDim.x) {
    const int head = i / pass_dim;
    const unsigned idx = token_offset + head * head_size + rot_dim + i % pass_dim;
    out[idx] = query[idx];
  }
}
