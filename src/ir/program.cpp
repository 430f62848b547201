// IR (in progress).
