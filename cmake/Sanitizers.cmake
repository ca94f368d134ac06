# CNI_SANITIZE=address,undefined adds sanitizers to every target.
set(CNI_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list (e.g. address,undefined)")
if(CNI_SANITIZE)
  add_compile_options(-fsanitize=${CNI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${CNI_SANITIZE})
endif()
