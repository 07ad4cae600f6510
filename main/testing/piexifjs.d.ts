// piexifjs has no types of its own: the part of it the tests use to write EXIF into real JPEGs.
declare module 'piexifjs' {
  type Tags = Record<number, unknown>;
  const piexif: {
    dump(exif: { '0th'?: Tags; Exif?: Tags; GPS?: Tags; '1st'?: Tags }): string;
    insert(exif: string, jpeg: string): string;
    load(jpeg: string): Record<string, Tags>;
    ImageIFD: { Orientation: number; DateTime: number; Make: number; Model: number };
    ExifIFD: { DateTimeOriginal: number; DateTimeDigitized: number; OffsetTimeOriginal: number };
    GPSIFD: { GPSLatitudeRef: number; GPSLatitude: number; GPSLongitudeRef: number; GPSLongitude: number; GPSAltitude: number; GPSDateStamp: number; GPSTimeStamp: number };
    GPSHelper: { degToDmsRational(degrees: number): [number, number][] };
  };
  export default piexif;
}
