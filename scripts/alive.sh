# Sourced by the start and stop scripts: alive PID is true while the
# process runs, false once it is gone or a zombie. A server started in the
# background by a start script is the init process's child once that
# script ends, and init reaps it when it gets to it (here up to 2 s after
# its exit); a zombie holds no file, port or lock, so it is stopped.
alive() { local st; st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "${st%% *}" != Z ]; }
