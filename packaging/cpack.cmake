# CPack: one Debian package `graphlens`. Its Depends come from the shared libraries the binaries
# and the layer link (dpkg-shlibdeps); what is loaded at run time and not linked (a Vulkan
# driver, Qt's platform plugins) is recommended; Graphviz renders `graphlens-cli dot`.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME graphlens)
set(CPACK_PACKAGE_VENDOR GraphLens)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "visual debugger for GPU compute graphs on Vulkan")
set(CPACK_PACKAGE_DESCRIPTION
    "GraphLens records every compute dispatch of a Vulkan program with the byte ranges it reads
and writes, runs passes over that graph (fuse, reorder, plan barriers), proves that every
hazard was kept and times each variant on the GPU. A Qt GUI shows dispatches, concurrency
groups, barriers and the byte-range conflicts behind each barrier; graphlens-cli does the
same headless; a Vulkan layer records any program's compute work.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "GraphLens developers <graphlens@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers | vulkan-icd, qt6-qpa-plugins")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "graphviz, renderdoc, vulkan-validationlayers")
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
include(CPack)
