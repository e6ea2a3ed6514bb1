module aorta-probe/buck/starlarktest

go 1.26

require go.starlark.net v0.0.0-20260908191801-89a6a09411d5

require (
	github.com/bazelbuild/buildtools v0.0.0-20260904073137-eaa4d125b423 // indirect
	github.com/golang/protobuf v1.5.0 // indirect
	github.com/google/safeopen v0.0.0-20260327150837-43626d6f4685 // indirect
	golang.org/x/sys v0.42.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

tool github.com/bazelbuild/buildtools/buildifier
