// The pi-relayd executable: the command line (SupervisorCLI) over the daemon's library
// (Supervisor) and its IO (SupervisorIO), so tests and fuzz targets can import them.
import SupervisorCLI

await PiRelayd.mainAsync()
