// npz reading and writing (in progress).
