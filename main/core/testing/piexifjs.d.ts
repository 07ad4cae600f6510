// The little of piexifjs the tests use (it ships no types): EXIF written into a real JPEG.
declare module 'piexifjs' {
  const piexif: {
    ImageIFD: { Make: number; Orientation: number };
    ExifIFD: { DateTimeOriginal: number };
    GPSIFD: { GPSLatitudeRef: number; GPSLatitude: number; GPSLongitudeRef: number; GPSLongitude: number };
    dump(exif: Record<string, unknown>): string;
    insert(exif: string, jpeg: string): string;
    load(jpeg: string): Record<string, Record<number, unknown>>;
    GPSHelper: { degToDmsRational(degrees: number): [number, number][] };
  };
  export default piexif;
}
