// libnghttp2 (Debian libnghttp2-dev, pkg-config libnghttp2) for the HTTP2Core target.
#ifndef SECUREPUSH_CNGHTTP2_SHIM_H
#define SECUREPUSH_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
