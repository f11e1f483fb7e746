import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { currentManager } from '../database/transaction';
import { NavigationView } from './navigation-view.entity';

@Injectable()
export class NavigationViewsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  listForUser(userId: number): Promise<NavigationView[]> {
    return this.em.find(NavigationView, { where: { userId }, order: { id: 'ASC' } });
  }

  findByFragment(userId: number, fragment: string): Promise<NavigationView | null> {
    return this.em.findOne(NavigationView, { where: { userId, fragment } });
  }

  findByName(userId: number, name: string): Promise<NavigationView | null> {
    return this.em.findOne(NavigationView, { where: { userId, name } });
  }

  async insert(values: Partial<NavigationView>): Promise<NavigationView> {
    const result = await this.em.insert(NavigationView, values);
    const id = (result.identifiers[0] as { id: number }).id;
    return (await this.em.findOne(NavigationView, { where: { id } }))!;
  }

  async update(id: number, values: Partial<NavigationView>): Promise<void> {
    await this.em.update(NavigationView, { id }, values);
  }

  async delete(id: number): Promise<void> {
    await this.em.delete(NavigationView, { id });
  }
}
