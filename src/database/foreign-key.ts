import { JoinColumn, ManyToOne, ObjectType } from 'typeorm';

/**
 * Declares a foreign-key constraint on an existing id column without giving the entity a
 * relation property that code would use: entities keep plain `xxxId` numbers, and the schema
 * (and the migrations TypeORM generates) still has the constraint.
 */
export function foreignKey(
  entity: { prototype: object },
  column: string,
  target: () => ObjectType<unknown>,
  onDelete: 'CASCADE' | 'RESTRICT' | 'SET NULL' = 'CASCADE',
  nullable = false,
): void {
  const property = `${column}__fk`;
  ManyToOne(target, { onDelete, nullable, createForeignKeyConstraints: true })(entity.prototype, property);
  JoinColumn({ name: column })(entity.prototype, property);
}
