#define LIB_VALUE 42
