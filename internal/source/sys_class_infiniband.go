package source

// RDMADeviceDriver is the driver bound to RDMA device dev (host-wide:
// /sys/class/infiniband is not namespaced); ErrName when dev cannot name
// an entry, ErrRead when the link cannot be read.
//
// Source: readlink /sys/class/infiniband/<dev>/device/driver.
func (fs FS) RDMADeviceDriver(dev string) (string, error) {
	if err := sysName(dev); err != nil {
		return "", err
	}
	return fs.linkBase("/sys/class/infiniband/" + dev + "/device/driver")
}
