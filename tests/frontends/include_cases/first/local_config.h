// Shadowed: #include "local_config.h" finds the copy next to the kernel before the include directories.
#pragma once

#define DEMO_SCALE 3.0f
