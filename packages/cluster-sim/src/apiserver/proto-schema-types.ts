/**
 * The shape of the protobuf field tables: its own module so that the generated tables and
 * their reader (`protobuf.ts`) both import it and neither imports the other back.
 */

/**
 * [JSON field name, type, 1 = repeated / 2 = map<string, type>, 1 = keep a zero value (a Go
 * pointer or a field without omitempty)].
 */
export type ProtoField = readonly [
  name: string,
  type: string,
  repetition?: 0 | 1 | 2,
  keepZero?: 1,
];
export type ProtoMessage = Readonly<Record<number, ProtoField>>;
