package main

import (
	"os"
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestMain removes the binary the process tests built (testharness.BuildSpecwatch).
func TestMain(m *testing.M) { os.Exit(testharness.Main(m)) }
