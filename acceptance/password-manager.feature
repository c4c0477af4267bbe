Feature: KeePassXC, a Qt password manager
  A welcome page, a wizard with fields, and menus.

  Background:
    Given I launch 'keepassxc'

  Scenario: The welcome page offers to start
    Then I should see 'Welcome to KeePassXC'
    And I should see the 'Create new database' button
    And I should see the 'Open existing database' button

  Scenario: A new database starts with its name
    When I click the 'Create new database' button
    Then I should see 'Database Name:'
    When I type 'Team secrets' into the 'Database Name:' field
    Then the 'Database Name:' field should contain the text 'Team secrets'

  Scenario: The Help menu
    When I click the 'Help' menu
    Then I should see the 'About' menu item

  Scenario: The Tools menu opens the password generator
    When I click the 'Tools' menu
    And I click the 'Password Generator' menu item
    Then I should see 'Password Generator'
    And I should see 'Length:'

  Scenario: Cancelling the wizard goes back to the welcome page
    When I click the 'Create new database' button
    And I click the 'Cancel' button
    Then I should see 'Welcome to KeePassXC'
