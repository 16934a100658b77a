// The pi-relay-attachments executable. The plugin lives in the AttachmentsPlugin library, so tests and fuzz
// targets can import it.
import AttachmentsPlugin

await Attachments.main()
