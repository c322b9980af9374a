# `cmake --install build --prefix P` installs the library, the public header, the tools and a CMake package:
#   find_package(InferEngine REQUIRED)  ->  target InferEngine::engine
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ie_engine EXPORT InferEngineTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES engine/api/engine.h engine/api/model_config.h engine/api/pipeline.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/engine/api)
install(FILES engine/core/dtype.h engine/core/exception.h engine/core/limits.h engine/core/precision.h
  engine/core/tensor.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/engine/core)
install(EXPORT InferEngineTargets NAMESPACE InferEngine:: FILE InferEngineTargets.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/InferEngine)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/InferEngineConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
file(WRITE ${CMAKE_BINARY_DIR}/InferEngineConfig.cmake
  "include(\${CMAKE_CURRENT_LIST_DIR}/InferEngineTargets.cmake)\n"
  "if(TARGET InferEngine::ie_engine AND NOT TARGET InferEngine::engine)\n"
  "  add_library(InferEngine::engine ALIAS InferEngine::ie_engine)\n"
  "endif()\n")
install(FILES ${CMAKE_BINARY_DIR}/InferEngineConfig.cmake ${CMAKE_BINARY_DIR}/InferEngineConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/InferEngine)
