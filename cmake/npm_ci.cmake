# cmake -DNPM=... -DSRC=web -DDEST=build/web -DSTATUS=file -P npm_ci.cmake
# Installs web/package-lock.json's packages into DEST with `npm ci`. On success writes STATUS
# ("ok"); on failure (no network, registry down) writes STATUS.failed with the reason and leaves
# STATUS absent, so that the next build tries again. Never fails the build: the generated assets
# then name what is missing (cmake/html_assets.cmake).
file(MAKE_DIRECTORY ${DEST})
file(COPY ${SRC}/package.json ${SRC}/package-lock.json DESTINATION ${DEST})
file(REMOVE ${STATUS} ${STATUS}.failed)
execute_process(COMMAND ${NPM} ci --no-audit --no-fund --loglevel=error
                WORKING_DIRECTORY ${DEST} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
if(rc EQUAL 0)
  file(WRITE ${STATUS} "ok\n")
else()
  string(REGEX REPLACE "\n.*" "" first_line "${err}")
  message(WARNING "assay: `npm ci` in ${DEST} failed (${rc}): ${err}\n`assay report` is unavailable until a build succeeds at it.")
  file(WRITE ${STATUS}.failed "`npm ci` failed (${rc}): ${first_line}")
endif()
