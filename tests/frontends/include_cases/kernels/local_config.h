// Found first for #include "local_config.h": it sits next to the kernel that includes it.
#pragma once

#define DEMO_SCALE 2.0f
