// expect: 3:3: error: unsupported switch statement: switch (n) { case 0: a[0] = 1; break; default: break; }
__global__ void k(int* a, int n) {
  switch (n) { case 0: a[0] = 1; break; default: break; }
}
