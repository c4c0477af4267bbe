// Glance for Cucumber: the World, the hooks and every step.
import './hooks';
import { registerSteps } from '../steps';

registerSteps();
export { GlanceWorld } from './world';
