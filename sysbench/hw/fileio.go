package hw

// fileioTest is sysbench's file I/O test as far as oltpbench has it: its
// options and sysbench's answers before a run, so command lines and
// --help read as sysbench's; its commands are refused (Refused): it
// measures a file system, and oltpbench measures databases.
var fileioTest = &Test{
	Name: "fileio", Desc: "File I/O test",
	Options: []Option{
		{"file-num", "N", "number of files to create", "128", false},
		{"file-block-size", "N", "block size to use in all IO operations", "16384", false},
		{"file-total-size", "SIZE", "total size of files to create", "2G", false},
		{"file-test-mode", "STRING", "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", "", true},
		{"file-io-mode", "STRING", "file operations mode {sync,async,mmap}", "sync", false},
		{"file-async-backlog", "N", "number of asynchronous operatons to queue per thread", "128", false},
		{"file-extra-flags", "[LIST,...]", "list of additional flags to use to open files {sync,dsync,direct}", "", false},
		{"file-fsync-freq", "N", "do fsync() after this number of requests (0 - don't use fsync())", "100", false},
		{"file-fsync-all", "[=on|off]", "do fsync() after each write operation", "off", false},
		{"file-fsync-end", "[=on|off]", "do fsync() at the end of test", "on", false},
		{"file-fsync-mode", "STRING", "which method to use for synchronization {fsync, fdatasync}", "fsync", false},
		{"file-merged-requests", "N", "merge at most this number of IO requests if possible (0 - don't merge)", "0", false},
		{"file-rw-ratio", "N", "reads/writes ratio for combined test", "1.5", false},
	},
	Refused: "FATAL: oltpbench does not run sysbench's fileio test: it measures a file system, not a database; run sysbench fileio or fio on the disks",
}
