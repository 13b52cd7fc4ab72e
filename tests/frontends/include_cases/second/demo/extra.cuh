// Found only in the second include directory: the search goes on past the first one.
#pragma once

#define DEMO_EXTRA 7
