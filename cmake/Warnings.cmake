# The project's warning set (CONTRIBUTING.md, "Lints"). Errors come from
# CMAKE_COMPILE_WARNING_AS_ERROR so packagers can opt out.
add_library(cni_warnings INTERFACE)
target_compile_options(cni_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
  -Wold-style-definition -Wvla -Wundef -Wimplicit-fallthrough -Wpointer-arith
  -Wwrite-strings -Wnull-dereference)
target_compile_definitions(cni_warnings INTERFACE _GNU_SOURCE)
if(CMAKE_BUILD_TYPE MATCHES "Rel" AND NOT CNI_SANITIZE)
  target_compile_options(cni_warnings INTERFACE -fstack-protector-strong)
  target_compile_definitions(cni_warnings INTERFACE _FORTIFY_SOURCE=2)
endif()
