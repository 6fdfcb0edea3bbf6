//go:build tools

// Package tools pins the upstream commands that build.sh compiles, so `go mod tidy` keeps
// every module they need in go.mod and go.sum.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
