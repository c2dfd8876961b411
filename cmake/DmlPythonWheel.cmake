# DmlPythonWheel.cmake — what the Python wheel holds (python/pyproject.toml,
# scikit-build-core, which sets DML_PYTHON_WHEEL=ON).
#
# scikit-build-core builds only the target dml_python_wheel (the runtime and
# its plugins: no tests, tools or emulated backend) and installs only the
# component "python", with the install prefix at the package, dml/:
#   dml/lib/libdml.so.1        the dispatcher, under its soname
#   dml/lib/dml/libdml_*.so    the plugins, found in dml/ next to libdml.so.1
#                              (src/dispatcher/registry.c)
# python/dml/_lib.py loads dml/lib/libdml.so.1 first after $DML_LIBRARY.
# The other install rules (the default component) are unchanged: a normal
# `cmake --install` lays out bin/, lib/, include/ ... as before.

# A wheel is a zip and stores no symlinks: libdml.so.1 must be the file
# itself, not a link to libdml.so.1.0.0 (which would be copied twice).
# VERSION equal to SOVERSION makes the soname the file's own name.
get_target_property(dml_soversion dml SOVERSION)
set_target_properties(dml PROPERTIES VERSION ${dml_soversion})

set(dml_wheel_plugins dml_cpu)
if(DML_CUDA_FOUND)
  list(APPEND dml_wheel_plugins dml_cuda)
endif()
add_custom_target(dml_python_wheel)
add_dependencies(dml_python_wheel dml ${dml_wheel_plugins})

# "lib", not CMAKE_INSTALL_LIBDIR (lib64 on some distributions): the package's
# layout is the same everywhere.
install(TARGETS dml LIBRARY DESTINATION lib NAMELINK_SKIP COMPONENT python)
install(TARGETS ${dml_wheel_plugins} LIBRARY DESTINATION lib/dml COMPONENT python)
