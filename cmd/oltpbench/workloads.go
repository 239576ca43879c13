package main

// The registered workloads: a new workload is a package and a line here.
import (
	_ "github.com/oltpbench/oltpbench/ch"
	_ "github.com/oltpbench/oltpbench/sysbench"
	_ "github.com/oltpbench/oltpbench/tpcc"
)
