package triage

func envMarkersMain(c diffArgs, io IO) int { return 2 }

func EnvNamesMain(args []string, env []string, io IO) int { return 2 }
