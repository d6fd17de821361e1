# cmake -DINPUT=file -DOUTPUT=file.cpp -DFUNCTION=name -DNAMESPACE=ns -P EmbedText.cmake
# Writes a C++ file defining `std::string_view NAMESPACE::FUNCTION()` that returns INPUT's text,
# so data the program reads (e.g. the model presets) stays a data file in the source tree.
file(READ "${INPUT}" text)
string(FIND "${text}" ")embedded\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string's delimiter )embedded\"")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${INPUT} by cmake/EmbedText.cmake; do not edit.\n"
     "#include <string_view>\n\nnamespace ${NAMESPACE} {\n\n"
     "std::string_view ${FUNCTION}() {\n    return R\"embedded(${text})embedded\";\n}\n\n"
     "}  // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
