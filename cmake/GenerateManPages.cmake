# cmake -DCLI=.. [-DGUI=..] -DOUTPUT_DIR=.. -DHELP2MAN=.. -DVERSION=.. -P GenerateManPages.cmake
# Writes the man pages of graphlens-cli, of each of its subcommands (graphlens-cli-<sub>(1),
# as git does) and of the GUI from their --help, so they never drift from the
# options the programs accept. The subcommands are read from `graphlens-cli --help`, so a new
# subcommand gets its page without touching this file. Pages are gzipped (-n: no timestamp,
# so an unchanged page packs to the same bytes).
file(REMOVE_RECURSE ${OUTPUT_DIR})
file(MAKE_DIRECTORY ${OUTPUT_DIR}/wrappers)

function(run_help2man program page name see_also)
  set(include_file ${OUTPUT_DIR}/wrappers/${page}.h2m)
  file(WRITE ${include_file} "[SEE ALSO]\n${see_also}\n")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
            ${HELP2MAN} --no-info --section=1 --locale=C.UTF-8 --version-string=${VERSION}
            --name=${name} --include=${include_file}
            --output=${OUTPUT_DIR}/${page}.1 ${program}
    RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "help2man failed on ${program}")
  endif()
  execute_process(COMMAND gzip -9nf ${OUTPUT_DIR}/${page}.1 RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "gzip failed on ${page}.1")
  endif()
endfunction()

# The subcommands and their one-line descriptions, from the "Subcommands:" block of --help.
execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE help RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${CLI} --help failed")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "" subcommand_block "${help}")
string(REPLACE "\n" ";" subcommand_lines "${subcommand_block}")
set(subcommands)
set(cli_see_also "")
foreach(line IN LISTS subcommand_lines)
  if(line MATCHES "^  ([a-z0-9-]+) +(.*)$")
    list(APPEND subcommands ${CMAKE_MATCH_1})
    # help2man passes --name through undecoded: keep the NAME line ASCII.
    string(REPLACE "→" "->" description "${CMAKE_MATCH_2}")
    set(description_${CMAKE_MATCH_1} "${description}")
    string(APPEND cli_see_also ".BR graphlens-cli-${CMAKE_MATCH_1} (1),\n")
  elseif(line MATCHES "^  ([a-z0-9-]+)$")
    list(APPEND subcommands ${CMAKE_MATCH_1})
    set(description_${CMAKE_MATCH_1} "graphlens-cli ${CMAKE_MATCH_1}")
    string(APPEND cli_see_also ".BR graphlens-cli-${CMAKE_MATCH_1} (1),\n")
  endif()
endforeach()
if(NOT subcommands)
  message(FATAL_ERROR "no subcommands found in `${CLI} --help`")
endif()

run_help2man(${CLI} graphlens-cli
             "capture, analyse, optimise and time GPU compute graphs on Vulkan"
             "${cli_see_also}.BR graphlens (1)")
foreach(sub IN LISTS subcommands)
  # help2man names a page after the program it runs: a wrapper named graphlens-cli-<sub>.
  set(wrapper ${OUTPUT_DIR}/wrappers/graphlens-cli-${sub})
  file(WRITE ${wrapper} "#!/bin/sh\nexec '${CLI}' ${sub} \"$@\"\n")
  file(CHMOD ${wrapper} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
  run_help2man(${wrapper} graphlens-cli-${sub} "${description_${sub}}"
               ".BR graphlens-cli (1)")
endforeach()
if(GUI)
  run_help2man(${GUI} graphlens "a visual debugger for GPU compute graphs on Vulkan"
               ".BR graphlens-cli (1)")
endif()
file(REMOVE_RECURSE ${OUTPUT_DIR}/wrappers)
