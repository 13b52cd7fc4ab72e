#include "../once.cuh"
#define INNER 7
int inner_decl;
