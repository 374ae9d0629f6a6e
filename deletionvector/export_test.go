package deletionvector

// BitmapCount64 exposes, to tests only, the number of bitmaps a 64-bit
// vector encodes (Java's bitmap array length).
func BitmapCount64(dv *DeletionVector) int { return dv.count }
