package probe

import (
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// nicVendor is one row of the fixed vendor registry (docs/hardware.md#nics).
type nicVendor struct {
	key      string // object key: ainic, broadcom, cx7
	lspciID  string // lspci -d vendor:device
	sysfsID  string // /sys/class/net/<if>/device/vendor
	driver   string // kernel driver the devices bind to
	dst      func(*schema.NICs) *schema.NIC
	hasTier2 bool
}

var nicVendors = []nicVendor{
	{"ainic", "1dd8:1002", "0x1dd8", "ionic", func(n *schema.NICs) *schema.NIC { return &n.AINIC }, true},
	{"broadcom", "14e4:1760", "0x14e4", "bnxt_en", func(n *schema.NICs) *schema.NIC { return &n.Broadcom }, false},
	{"cx7", "15b3:1021", "0x15b3", "mlx5_core", func(n *schema.NICs) *schema.NIC { return &n.CX7 }, false},
}

// collectNICs is the nics block (docs/hardware.md#nics): per vendor, in
// registry order, Tier 0 presence, Tier 1 sudo-free identity for a present
// vendor, and for AINIC the Tier 2 nicctl view when nicctl is on PATH.
//
// The vendors, and within a vendor the commands that do not need each
// other's answer, run concurrently (state.parallel): a block of hanging
// tools costs about one 5 s timeout per dependent step, not one per tool.
// Reasons and command records still come in the spec's order, vendor by
// vendor.
//
// Source: `lspci -d <id>`; /sys/class/net/<if>/device/{vendor,driver},
// /sys/class/infiniband/<dev>/device/driver, /sys/module/<driver>/version;
// `ethtool -i <if>`, `ibv_devices`, `rdma link`; `sudo -n -E nicctl ...`.
// Scope: PCI, sysfs and RDMA are host hardware views (/sys/class/net only
// shows the probe's network namespace); tools come from the filesystem.
func collectNICs(s *state) schema.NICs {
	var nics schema.NICs // every vendor {"present": null}
	if _, ok := s.which("lspci"); !ok {
		s.reason("nics: lspci not on PATH; NIC presence undeterminable")
		return nics
	}
	// lspci -d reads the same sysfs tree; when it shows no function of a
	// vendor, lspci's answer is known to be empty and is not asked for.
	pci, err := source.NewFS(s.root).PCIIDs()
	complete := err == nil
	var jobs []func(*state)
	for _, v := range nicVendors {
		if complete && !pci[v.lspciID] {
			*v.dst(&nics) = schema.NIC{Present: schema.Bool(false)}
			continue
		}
		jobs = append(jobs, func(s *state) { *v.dst(&nics) = collectNIC(s, v) })
	}
	s.parallel(jobs...)
	return nics
}

// collectNIC is one vendor's entry. After lspci, the ethtool, ibv_devices,
// rdma and first nicctl queries run together; the nicctl profile (which
// needs the card's UUID) and dcqcn (which needs an RDMA device) follow.
func collectNIC(s *state, v nicVendor) schema.NIC {
	label := "nics." + v.key
	out := nicRun(s, []string{"lspci", "-d", v.lspciID}, label, false)
	if out == nil {
		return schema.NIC{}
	}
	if *out == "" {
		return schema.NIC{Present: schema.Bool(false)}
	}
	d := &schema.NICDetail{RDMADevices: []string{}, Links: []schema.RDMALink{}}

	src := source.NewFS(s.root)
	ifaces, _ := src.NetInterfacesOfVendor(v.sysfsID)
	d.DriverVersion = s.root.ReadText("/sys/module/" + v.driver + "/version")
	var eth, ibv, rl *string
	var t2 *schema.AINICDetail
	_, tier2 := s.which("nicctl")
	tier2 = tier2 && v.hasTier2
	s.parallel(
		func(s *state) {
			if len(ifaces) > 0 {
				eth = nicRun(s, []string{"ethtool", "-i", ifaces[0]}, label+".ethtool", false)
			}
		},
		func(s *state) { ibv = nicRun(s, []string{"ibv_devices"}, label+".rdma_devices", false) },
		func(s *state) { rl = nicRun(s, []string{"rdma", "link"}, label+".links", false) },
		func(s *state) {
			if tier2 {
				t2 = ainicTier2Identity(s)
			}
		},
	)
	if eth != nil {
		info := source.ParseEthtoolInfo(*eth)
		if d.DriverVersion == nil {
			d.DriverVersion = info.Version
		}
		d.Firmware, d.PkgVersion = source.SplitFirmware(info.FirmwareVersion)
	}
	if ibv != nil {
		for _, dev := range source.ParseIBVDevices(*ibv) {
			if drv, err := src.RDMADeviceDriver(dev); err == nil && drv == v.driver {
				d.RDMADevices = append(d.RDMADevices, dev)
			}
		}
	}
	if rl != nil {
		for _, l := range source.ParseRDMALinks(*rl) {
			if linkDriver(src, l) == v.driver {
				d.Links = append(d.Links, schema.RDMALink(l))
			}
		}
	}
	if tier2 {
		ainicTier2Settings(s, t2, d.RDMADevices)
		d.AINICDetail = t2
	}
	return schema.NIC{Present: schema.Bool(true), NICDetail: d}
}

// linkDriver is the driver a link binds to: its netdev's when it has one
// that resolves, else its RDMA device's; "" when neither resolves.
func linkDriver(src source.FS, l source.RDMALink) string {
	if l.Netdev != nil {
		if drv, err := src.NetdevDriver(*l.Netdev); err == nil {
			return drv
		}
	}
	drv, _ := src.RDMADeviceDriver(l.Device)
	return drv
}

// ainicTier2Identity is the first part of the nicctl view
// (docs/hardware.md#nics): version, firmware, host software and card, run
// together. Every command runs as `sudo -n -E nicctl ...`.
func ainicTier2Identity(s *state) *schema.AINICDetail {
	t := &schema.AINICDetail{}
	var card *string
	var fw *string
	s.parallel(
		func(s *state) {
			if out := nicRun(s, []string{"nicctl", "--version"}, "nics.ainic.nicctl_version", true); out != nil {
				t.NicctlVersion = source.ParseNicctlVersion(*out)
			}
		},
		func(s *state) {
			if out := nicRun(s, []string{"nicctl", "show", "version", "firmware", "--json"}, "nics.ainic.card.firmware", true); out != nil {
				fw = source.ParseNicctlShowVersion(*out)
			}
		},
		func(s *state) {
			if out := nicRun(s, []string{"nicctl", "show", "version", "host-software", "--json"}, "nics.ainic.card.host_sw", true); out != nil {
				t.Card.HostSW = source.ParseNicctlShowVersion(*out)
			}
		},
		func(s *state) {
			card = nicRun(s, []string{"nicctl", "show", "card", "--detail"}, "nics.ainic.card", true)
		},
	)
	t.Card.Firmware = fw
	if card != nil && *card != "" {
		c := source.ParseCardDetail(*card)
		t.Card.UUID, t.Card.ASIC = c.UUID, c.ASIC
		if t.Card.Firmware == nil {
			t.Card.Firmware = c.Firmware
		}
	}
	return t
}

// ainicTier2Settings is the rest of the nicctl view: the card profile
// (needs the card's UUID) and dcqcn (needs an AINIC RDMA device), run
// together.
func ainicTier2Settings(s *state, t *schema.AINICDetail, rdmaDevices []string) {
	s.parallel(
		func(s *state) {
			if t.Card.UUID == nil {
				return
			}
			if out := nicRun(s, []string{"nicctl", "show", "card", "profile", "-c", *t.Card.UUID}, "nics.ainic.profile", true); out != nil {
				t.Profile = schema.AINICProfile(source.ParseCardProfile(*out))
			}
		},
		func(s *state) {
			if len(rdmaDevices) == 0 {
				s.reason("nics.ainic.dcqcn: no AINIC RDMA device resolved; cannot query dcqcn")
			} else if out := nicRun(s, []string{"nicctl", "show", "dcqcn", "--roce-device", rdmaDevices[0], "--profile-id", "1"}, "nics.ainic.dcqcn", true); out != nil {
				t.DCQCN = schema.AINICDCQCN(source.ParseDCQCN(*out))
			}
		},
	)
}

// nicRun runs one NIC tool as the Python probe's NIC helper does
// (docs/hardware.md#nics; label names the tool in reasons, sudo asks for
// `sudo -n -E`): the tool (argv[0], not sudo) must be on PATH; it
// runs by bare name, under `sudo -n -E` when sudo is set, for at most 5 s. It
// returns stdout stripped (possibly ""), or nil after appending the failure's
// reason.
func nicRun(s *state, argv []string, label string, sudo bool) *string {
	tool := argv[0]
	if _, ok := s.which(tool); !ok {
		s.reason("%s: %s not on PATH", label, tool)
		return nil
	}
	cmd := argv
	if sudo {
		cmd = append([]string{"sudo", "-n", "-E"}, argv...)
	}
	r := s.run(machine.Command{Argv: cmd, Timeout: machine.ShortTimeout})
	if r.TimedOut() {
		s.reason("%s: %s exceeded 5s timeout", label, tool)
		return nil
	}
	if rc, ok := r.Exit(); ok && rc != 0 {
		detail := "no stderr"
		if tail := lastNonBlankLine(stderrText(r)); tail != "" {
			detail = "stderr: " + tail
		} else if sudo {
			detail = "no stderr; likely sudo-n unavailable"
		}
		s.reason("%s: %s exited %d (%s)", label, tool, rc, detail)
		return nil
	}
	if err := r.LaunchErr(); err != nil {
		s.reason("%s: failed to invoke %s (%s)", label, cmd[0], invokeExc(err, cmd[0]))
		return nil
	}
	out := pyfmt.Strip(toolText(r.Stdout))
	return &out
}
