# Find the MPI implementations the tracer is built for, each on its own
# (CMake's FindMPI finds only one): Open MPI through pkg-config 'ompi-c',
# MPICH through pkg-config 'mpich'. Sets
#   MPIMATCH_MPIS              list of names found: openmpi, mpich
#   MPIMATCH_MPI_<name>_LIB    an imported target with its headers and library
#   MPIMATCH_MPIEXEC_<name>    its launcher (mpirun.openmpi, mpirun.mpich or mpiexec.*)
# MPIMATCH_TRACER=OFF skips the search (and the tracer).
option(MPIMATCH_TRACER "Build libmpimatch-trace.so for each MPI found" ON)
set(MPIMATCH_MPIS "")
if(MPIMATCH_TRACER)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    foreach(pair "openmpi;ompi-c" "mpich;mpich")
      list(GET pair 0 name)
      list(GET pair 1 module)
      pkg_check_modules(MMMPI_${name} QUIET IMPORTED_TARGET ${module})
      if(MMMPI_${name}_FOUND)
        list(APPEND MPIMATCH_MPIS ${name})
        set(MPIMATCH_MPI_${name}_LIB PkgConfig::MMMPI_${name})
        find_program(MPIMATCH_MPIEXEC_${name} NAMES mpirun.${name} mpiexec.${name})
        message(STATUS "mpimatch: ${name} ${MMMPI_${name}_VERSION} found: building its tracer")
      endif()
    endforeach()
  endif()
endif()

# MPI programs and libraries loaded into them are not instrumented: drop the
# sanitizer options of the current directory, whatever the rest of the tree uses.
macro(mpimatch_no_sanitize_here)
  get_directory_property(_opts COMPILE_OPTIONS)
  list(FILTER _opts EXCLUDE REGEX "^-fsanitize|^-fno-sanitize|^-fno-omit-frame-pointer")
  set_directory_properties(PROPERTIES COMPILE_OPTIONS "${_opts}")
  get_directory_property(_lopts LINK_OPTIONS)
  list(FILTER _lopts EXCLUDE REGEX "^-fsanitize")
  set_directory_properties(PROPERTIES LINK_OPTIONS "${_lopts}")
endmacro()
