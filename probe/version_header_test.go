package probe

import (
	"testing"
	"unicode/utf8"
)

func TestHdrParse(t *testing.T) {
	tests := []struct {
		name, text, prefix string
		tweak, version     any // string or nil
	}{
		{"hipblaslt 7.2", "#define HIPBLASLT_VERSION_MAJOR 1\n#define HIPBLASLT_VERSION_MINOR 2\n#define HIPBLASLT_VERSION_PATCH 2\n#define HIPBLASLT_VERSION_TWEAK dabb6df2b9", "HIPBLASLT", "dabb6df2b9", "1.2.2"},
		{"rocblas padded", "#define ROCBLAS_VERSION_MAJOR       5\n#define ROCBLAS_VERSION_MINOR       2\n#define ROCBLAS_VERSION_PATCH       0\n#define ROCBLAS_VERSION_TWEAK       dabb6df2b9", "ROCBLAS", "dabb6df2b9", "5.2.0"},
		{"first tweak wins", "#define MIOPEN_VERSION_TWEAK aaa\n#define MIOPEN_VERSION_TWEAK bbb", "MIOPEN", "aaa", nil},
		{"last part wins", "#define MIOPEN_VERSION_MAJOR 1\n#define MIOPEN_VERSION_MAJOR 3\n#define MIOPEN_VERSION_MINOR 5\n#define MIOPEN_VERSION_PATCH 1", "MIOPEN", nil, "3.5.1"},
		{"leading zeros kept", "#define MIOPEN_VERSION_MAJOR 03\n#define MIOPEN_VERSION_MINOR 05\n#define MIOPEN_VERSION_PATCH 001", "MIOPEN", nil, "03.05.001"},
		{"missing patch", "#define ROCBLAS_VERSION_MAJOR 5\n#define ROCBLAS_VERSION_MINOR 2", "ROCBLAS", nil, nil},
		{"tweak charset stops", "#define HIPBLASLT_VERSION_TWEAK 1.4.1+rocm-7_x/y", "HIPBLASLT", "1.4.1+rocm-7_x", nil},
		{"tweak on next line", "#define HIPBLASLT_VERSION_TWEAK\n  8d1ae90e", "HIPBLASLT", "8d1ae90e", nil},
		{"tweak empty at end", "#define ROCBLAS_VERSION_TWEAK", "ROCBLAS", nil, nil},
		{"not anchored", "x #define MIOPEN_VERSION_TWEAK abc", "MIOPEN", "abc", nil},
		{"python whitespace", "#define\x1cMIOPEN_VERSION_MAJOR\v1\n#define\u3000MIOPEN_VERSION_MINOR\x1f2\n#define MIOPEN_VERSION_PATCH\u00a03", "MIOPEN", nil, "1.2.3"},
		{"unicode digits", "#define MIOPEN_VERSION_MAJOR \u0663\n#define MIOPEN_VERSION_MINOR 5\n#define MIOPEN_VERSION_PATCH 1", "MIOPEN", nil, "\u0663.5.1"},
		{"other prefix ignored", "#define ROCBLAS_VERSION_MAJOR 5\n#define ROCBLAS_VERSION_MINOR 2\n#define ROCBLAS_VERSION_PATCH 0", "HIPBLASLT", nil, nil},
		{"no space after define", "#defineMIOPEN_VERSION_TWEAK abc", "MIOPEN", nil, nil},
		{"garbage", "\x00\x01}{", "MIOPEN", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			tw, ver := hdrParse(&text, tc.prefix)
			check(t, "tweak", tw, tc.tweak)
			check(t, "version", ver, tc.version)
		})
	}
	if tw, ver := hdrParse(nil, "MIOPEN"); tw != nil || ver != nil {
		t.Error("nil text must give nulls")
	}
}

func check(t *testing.T, what string, got *string, want any) {
	t.Helper()
	switch w := want.(type) {
	case nil:
		if got != nil {
			t.Errorf("%s = %q, want null", what, *got)
		}
	case string:
		if got == nil || *got != w {
			t.Errorf("%s = %v, want %q", what, deref(got), w)
		}
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestRCCLVersion(t *testing.T) {
	tests := []struct {
		name, text string
		code       int // -1: null
		version    string
	}{
		{"2.27.7", "#define NCCL_MAJOR 2\n#define NCCL_VERSION_CODE 22707\n", 22707, "2.27.7"},
		{"legacy", "#define NCCL_VERSION_CODE 2807", 2807, "2.8.7"},
		{"first wins", "#define NCCL_VERSION_CODE 22707\n#define NCCL_VERSION_CODE 22800", 22707, "2.27.7"},
		{"exactly 10000", "#define NCCL_VERSION_CODE 10000", 10000, "1.0.0"},
		{"small", "#define NCCL_VERSION_CODE 7", 7, "0.0.7"},
		{"arabic-indic digits", "#define NCCL_VERSION_CODE \u0662\u0662\u0667\u0660\u0667", 22707, "2.27.7"},
		{"expression, not digits", "#define NCCL_VERSION_CODE NCCL_VERSION(2,27,7)", -1, ""},
		{"overflow", "#define NCCL_VERSION_CODE 99999999999999999999999", -1, ""},
		{"absent", "#define NCCL_MAJOR 2", -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			got := rcclVersionCode(&text)
			if tc.code < 0 {
				if got != nil {
					t.Fatalf("code = %d, want null", *got)
				}
				return
			}
			if got == nil || *got != tc.code {
				t.Fatalf("code = %v, want %d", got, tc.code)
			}
			if v := rcclVersion(*got); v != tc.version {
				t.Errorf("version = %q, want %q", v, tc.version)
			}
		})
	}
}

func FuzzHdrParse(f *testing.F) {
	f.Add("#define HIPBLASLT_VERSION_MAJOR 1\n#define HIPBLASLT_VERSION_MINOR 2\n#define HIPBLASLT_VERSION_PATCH 2\n#define HIPBLASLT_VERSION_TWEAK dabb6df2b9")
	f.Add("#define\vHIPBLASLT_VERSION_TWEAK\x1c+")
	f.Fuzz(func(t *testing.T, text string) {
		tw, ver := hdrParse(&text, "HIPBLASLT")
		if tw != nil && *tw == "" {
			t.Fatal("empty tweak")
		}
		if ver != nil && !utf8.ValidString(*ver) {
			t.Fatal("version not UTF-8")
		}
	})
}

func FuzzRCCLVersionCode(f *testing.F) {
	f.Add("#define NCCL_VERSION_CODE 22707")
	f.Add("#define NCCL_VERSION_CODE \u0662\u0662")
	f.Fuzz(func(t *testing.T, text string) {
		if c := rcclVersionCode(&text); c != nil {
			if *c < 0 {
				t.Fatalf("negative code %d", *c)
			}
			_ = rcclVersion(*c)
		}
	})
}
