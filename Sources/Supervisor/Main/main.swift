// The pi-relayd executable. Everything lives in the Supervisor library, so tests and fuzz
// targets can import it.
import Supervisor

await PiRelayd.mainAsync()
