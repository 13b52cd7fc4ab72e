// expect: 3:13: error: unsupported goto statement: goto done;
__global__ void k(int* a) {
  if (a[0]) goto done;
  a[1] = 2;
done:
  return;
}
