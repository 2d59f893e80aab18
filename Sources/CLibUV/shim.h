#ifndef FLOWD_CLIBUV_SHIM_H
#define FLOWD_CLIBUV_SHIM_H
#include <uv.h>
#endif
