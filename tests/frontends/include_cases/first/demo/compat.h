// Portability macros, included as "compat.h" from demo/activation.cuh: found next to that header.
#pragma once

#ifndef DEMO_LDG
#define DEMO_LDG(ptr) __ldg(ptr)
#endif
