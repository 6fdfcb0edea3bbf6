// Command etcd is upstream etcd v3.5 built from the Go module proxy: Debian ships only 3.4,
// while kube-apiserver v1.32 is released and tested against etcd 3.5.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
