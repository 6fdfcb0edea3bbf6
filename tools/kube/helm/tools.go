//go:build tools

// Package tools pins the helm command that build.sh compiles, so `go mod tidy` keeps every module
// it needs in go.mod and go.sum.
package tools

import (
	_ "helm.sh/helm/v4/cmd/helm"
)
